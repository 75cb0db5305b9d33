/** The notification module's records as the API answers them (SPEC.md > Notification module tables), their queries
 * and the few calls every screen of the Messaging module shares. Secrets come back as MASK; sending MASK back keeps
 * the stored value. */
import { queryOptions } from '@tanstack/react-query';
import { request, requestList } from '../api/client.ts';

export const MASK = '********';

export type Channel = 'email' | 'chat' | 'inapp';
export const CHANNELS: { id: Channel; label: string }[] = [
  { id: 'email', label: 'Email' },
  { id: 'chat', label: 'Chat' },
  { id: 'inapp', label: 'In-app' },
];
export const channelLabel = (c: string): string => CHANNELS.find((x) => x.id === c)?.label ?? c;

export interface Provider {
  id: number;
  name: string;
  channel: Channel;
  type: string | null;
  config: Record<string, unknown> | null;
  is_primary: boolean;
  enabled: boolean;
  webhook_enabled: boolean;
  webhook_secret: string | null;
}

export interface Layout {
  id: string;
  name: string;
  description: string | null;
  content: string;
  variables_schema: unknown;
}

export type TemplateStatus = 'published' | 'draft' | 'archived';

export interface Template {
  id: string;
  name: string;
  description: string | null;
  channels: Channel[] | null;
  cc_admin: boolean;
  variables_schema: unknown;
  layout_id: string | null;
  status: TemplateStatus;
  is_system?: boolean;
  contents?: TemplateContent[];
}

export interface TemplateContent {
  id: number;
  template_id: string;
  provider_id: number;
  locale: string;
  subject: string | null;
  content: string;
  active: boolean;
}

export const LOG_STATUSES = ['pending', 'sending', 'sent', 'delivered', 'bounced', 'rejected', 'failed', 'cancelled'] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

export interface Log {
  id: number;
  status: LogStatus;
  template_id: string | null;
  channel: Channel;
  provider_id: number | null;
  provider_message_id: string | null;
  recipients: string[] | null;
  cc: string[] | null;
  bcc: string[] | null;
  locale: string | null;
  variables: Record<string, unknown> | null;
  subject_rendered: string | null;
  scheduled_at: string | null;
  sent_at: string | null;
  delivered_at: string | null;
  error_message: string | null;
  provider_response: unknown;
  metadata: unknown;
  created_at?: string | null;
}

export type LogStats = { total: number } & Record<LogStatus, number>;

export interface DeliveryEvent {
  id: number;
  event: string;
  provider_id: number | null;
  provider_message_id: string | null;
  provider_status_raw: string | null;
  reason: string | null;
  occurred_at: string | null;
  received_at: string | null;
}

export interface TemplateError { line: number; column?: number; message: string }
export interface Validation { valid: boolean; errors: TemplateError[] }

export interface Preview { channel: Channel; subject: string; content: string; variables_error: string | null }

/** Providers are few (a handful per channel): one list, small fields, no paging needed beyond a generous cap. */
export const providersQuery = queryOptions({
  queryKey: ['messaging', 'providers'],
  queryFn: ({ signal }) => request<Provider[]>('GET', '/notify/providers', { query: { sort: ['channel', 'name'], limit: 500 }, signal }),
});

/** Layouts for the template form's picker: ids and names only. */
export const layoutNamesQuery = queryOptions({
  queryKey: ['messaging', 'layouts', 'names'],
  queryFn: ({ signal }) => request<Pick<Layout, 'id' | 'name'>[]>('GET', '/notify/layouts', { query: { fields: ['id', 'name'], sort: ['name'], limit: 500 }, signal }),
});

/** Templates for the log filter: ids and names only. */
export const templateNamesQuery = queryOptions({
  queryKey: ['messaging', 'templates', 'names'],
  queryFn: ({ signal }) => request<Pick<Template, 'id' | 'name'>[]>('GET', '/notify/templates', { query: { fields: ['id', 'name'], sort: ['name'], limit: 500 }, signal }),
});

export function listPage<T>(path: string, query: Record<string, unknown>, signal?: AbortSignal) {
  return requestList<T>(path, { ...query, meta: 'filter_count' } as never, signal);
}

export function validateTemplate(template: string, signal?: AbortSignal): Promise<Validation> {
  return request<Validation>('POST', '/notify/validate-template', { body: { template }, signal });
}

export interface PreviewRequest {
  content: string;
  subject?: string | null;
  channel?: Channel;
  template_id?: string;
  layout_id?: string | null;
  layout?: string;
  variables?: Record<string, unknown>;
}

export function renderPreview(body: PreviewRequest, signal?: AbortSignal): Promise<Preview> {
  return request<Preview>('POST', '/notify/preview', { body, signal });
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateTimeSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function formatTime(value: string | null | undefined, seconds = false): string {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : (seconds ? dateTimeSeconds : dateTime).format(d);
}

/** A JSON column as the API may answer it (parsed already, or as text). */
export function jsonValue<T>(v: unknown): T | null {
  if (typeof v === 'string') {
    try {
      return JSON.parse(v) as T;
    } catch {
      return null;
    }
  }
  return (v ?? null) as T | null;
}
