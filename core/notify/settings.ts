/** /notify/settings (SPEC.md > Notification module tables, svc_notify_settings singleton id=1): created with
 * its defaults on first read. Auth: an authenticated caller; non-admins need read/update permission on
 * svc_notify_settings (there is no built-in grant, so by default only admins see or change SMTP settings).
 * smtp_pass, cloud_mail_access_key, cloud_mail_secret_key and chat_token are encrypted at rest with SECRET and
 * answered as `********`; a PATCH carrying `********` keeps the stored value. */
import type { ServiceContext } from '../context.ts';
import { run, type Executor } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { readItemData, type QueryInput } from '../items/read.ts';
import { updateItem } from '../items/write/index.ts';
import { authorize, notifyContext } from './admin-access.ts';
import { inNotifyTransaction, type Row } from './admin-records.ts';
import { channelList } from './channels/registry.ts';
import {
  bodyObject, emailList, httpUrl, oneOf, optionalBoolean, optionalPort, optionalString, rejectUnknown, requiredString, sender,
} from './payload-fields.ts';
import { parseJsonColumn } from './providers-store.ts';
import { MASK, maskObject, openObject, sealObject } from './secrets.ts';

const COLLECTION = 'svc_notify_settings';
export const SETTINGS_SENSITIVE = ['smtp_pass', 'cloud_mail_access_key', 'cloud_mail_secret_key', 'chat_token'] as const;
const TRANSPORTS = ['smtp', 'cloud_mail', 'sendmail'] as const;
const WRITABLE = [
  'email_transport', 'smtp_host', 'smtp_port', 'smtp_user', 'smtp_pass', 'smtp_secure', 'cloud_mail_region', 'cloud_mail_access_key',
  'cloud_mail_secret_key', 'email_from', 'admin_emails', 'chat_url', 'chat_token', 'default_locale', 'default_channels',
];

export interface NotifySettings {
  email_transport: 'smtp' | 'cloud_mail' | 'sendmail';
  smtp_host: string | null; smtp_port: number | null; smtp_user: string | null; smtp_pass: string | null; smtp_secure: boolean;
  cloud_mail_region: string | null; cloud_mail_access_key: string | null; cloud_mail_secret_key: string | null;
  email_from: string | null; admin_emails: string[]; chat_url: string | null; chat_token: string | null;
  default_locale: string; default_channels: string[];
}

async function ensureRow(db: Executor): Promise<void> {
  await run(db, 'insert into svc_notify_settings (id) values (1) on conflict (id) do nothing');
}

/** The settings with secrets decrypted (for sending; never for HTTP answers). */
export async function loadNotifySettings(db: Executor, secret: string): Promise<NotifySettings> {
  await ensureRow(db);
  const [row] = await run<Row>(db, 'select * from svc_notify_settings where id = 1');
  const plain = openObject(row, secret, SETTINGS_SENSITIVE);
  const list = (v: unknown): string[] => {
    const p = parseJsonColumn(v);
    return Array.isArray(p) ? p.filter((x): x is string => typeof x === 'string') : [];
  };
  return {
    email_transport: plain.email_transport as NotifySettings['email_transport'],
    smtp_host: (plain.smtp_host ?? null) as string | null,
    smtp_port: plain.smtp_port === null || plain.smtp_port === undefined ? null : Number(plain.smtp_port),
    smtp_user: (plain.smtp_user ?? null) as string | null,
    smtp_pass: (plain.smtp_pass ?? null) as string | null,
    smtp_secure: plain.smtp_secure === true,
    cloud_mail_region: (plain.cloud_mail_region ?? null) as string | null,
    cloud_mail_access_key: (plain.cloud_mail_access_key ?? null) as string | null,
    cloud_mail_secret_key: (plain.cloud_mail_secret_key ?? null) as string | null,
    email_from: (plain.email_from ?? null) as string | null,
    admin_emails: list(plain.admin_emails),
    chat_url: (plain.chat_url ?? null) as string | null,
    chat_token: (plain.chat_token ?? null) as string | null,
    default_locale: typeof plain.default_locale === 'string' ? plain.default_locale : 'en',
    default_channels: list(plain.default_channels),
  };
}

async function readShown(ctx: ServiceContext, input: QueryInput): Promise<Row> {
  const text = await readItemData(notifyContext(ctx), COLLECTION, 1, input);
  if (text === null) throw new ForbiddenError();
  return maskObject(JSON.parse(text) as Row, SETTINGS_SENSITIVE);
}

export async function readNotifySettings(ctx: ServiceContext, input: QueryInput): Promise<Row> {
  await authorize(ctx, COLLECTION, 'read');
  await ensureRow(ctx.db);
  return readShown(ctx, input);
}

function validate(input: Row): Row {
  rejectUnknown(input, WRITABLE);
  const out: Row = {};
  const set = (k: string, v: unknown): void => { if (v !== undefined) out[k] = v; };
  if (input.email_transport !== undefined) set('email_transport', oneOf('email_transport', input.email_transport, TRANSPORTS));
  set('smtp_host', optionalString('smtp_host', input.smtp_host));
  set('smtp_port', optionalPort('smtp_port', input.smtp_port));
  set('smtp_user', optionalString('smtp_user', input.smtp_user));
  set('smtp_pass', optionalString('smtp_pass', input.smtp_pass, 4096));
  if (input.smtp_secure !== undefined) set('smtp_secure', optionalBoolean('smtp_secure', input.smtp_secure));
  set('cloud_mail_region', optionalString('cloud_mail_region', input.cloud_mail_region, 64));
  set('cloud_mail_access_key', optionalString('cloud_mail_access_key', input.cloud_mail_access_key, 4096));
  set('cloud_mail_secret_key', optionalString('cloud_mail_secret_key', input.cloud_mail_secret_key, 4096));
  set('email_from', sender('email_from', input.email_from, false));
  set('admin_emails', emailList('admin_emails', input.admin_emails));
  set('chat_url', httpUrl('chat_url', input.chat_url, false) || (input.chat_url === undefined ? undefined : null));
  set('chat_token', optionalString('chat_token', input.chat_token, 4096));
  if (input.default_locale !== undefined) set('default_locale', requiredString('default_locale', input.default_locale, 32));
  set('default_channels', channelList('default_channels', input.default_channels, { nonEmpty: false }));
  if (input.smtp_secure === null) throw new InvalidPayloadError('"smtp_secure" must be a boolean.', { field: 'smtp_secure' });
  return out;
}

/** PATCH: validates, keeps masked secrets, encrypts new ones; answers the settings as the caller may read them. */
export async function updateNotifySettings(ctx: ServiceContext, body: unknown, input: QueryInput): Promise<Row | null> {
  await authorize(ctx, COLLECTION, 'update');
  const raw = { ...bodyObject(body) };
  for (const k of SETTINGS_SENSITIVE) if (raw[k] === MASK) delete raw[k]; // the mask keeps the stored value
  const changes = sealObject(validate(raw), ctx.config.secret, SETTINGS_SENSITIVE);
  await inNotifyTransaction(ctx, async (trx) => {
    await ensureRow(trx.db);
    if (Object.keys(changes).length) await updateItem(trx, COLLECTION, 1, changes);
  });
  try {
    return await readShown(ctx, input);
  } catch (err) {
    if (err instanceof ForbiddenError) return null;
    throw err;
  }
}
