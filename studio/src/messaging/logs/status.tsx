/** A send log's status in words, with a color that says whether it went well (never the color alone). */
import type { LogStatus } from '../api.ts';

export const STATUS_LABEL: Record<LogStatus, string> = {
  pending: 'Pending', sending: 'Sending', sent: 'Sent', delivered: 'Delivered', bounced: 'Bounced', rejected: 'Rejected', failed: 'Failed', cancelled: 'Cancelled',
};

const TONE: Record<LogStatus, string> = {
  pending: 'wait', sending: 'wait', sent: 'ok', delivered: 'ok', bounced: 'bad', rejected: 'bad', failed: 'bad', cancelled: 'off',
};

export function StatusBadge({ status }: { status: LogStatus }) {
  return <span className={`status status-${TONE[status] ?? 'off'}`}>{STATUS_LABEL[status] ?? status}</span>;
}
