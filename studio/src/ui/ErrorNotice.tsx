/** An API error where it happened, in words a person understands, with a retry when trying again can help. */
import { ApiError, messageOf } from '../api/errors.ts';

export function ErrorNotice({ error, onRetry, title }: { error: unknown; onRetry?: () => void; title?: string }) {
  const retryable = !(error instanceof ApiError) || error.retryable;
  return (
    <div className="notice notice-error" role="alert">
      {title && <strong>{title} </strong>}
      <span>{messageOf(error)}</span>
      {onRetry && retryable && <button type="button" className="btn btn-small" onClick={onRetry}>Try again</button>}
    </div>
  );
}
