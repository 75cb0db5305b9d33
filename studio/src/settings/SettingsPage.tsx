/** A settings page over one record read from the API: its heading, then the record's forms once it is read (the
 * error where the page would be, with a retry, when it cannot be). */
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';

export function SettingsPage<T>({ title, record, loading, children }: {
  title: string;
  record: UseQueryResult<T>;
  /** What the spinner says while the record is read. */
  loading: string;
  children(stored: T): ReactNode;
}) {
  return (
    <div className="main-pane">
      <header className="page-header"><h1>{title}</h1></header>
      <div className="page-body">
        {record.error ? <ErrorNotice error={record.error} onRetry={() => void record.refetch()} />
          : record.data === undefined ? <Loading label={loading} />
            : children(record.data)}
      </div>
    </div>
  );
}
