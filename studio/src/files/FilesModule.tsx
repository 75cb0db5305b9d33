/** /admin/files: the file library. */
import { useQuery } from '@tanstack/react-query';
import { requestList } from '../api/client.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';

interface FileRow { id: string; filename_download: string; title: string | null; type: string | null; filesize: number | null }

export default function FilesModule() {
  const files = useQuery({ queryKey: ['files', 'recent'], queryFn: ({ signal }) => requestList<FileRow>('/files', { fields: ['id', 'filename_download', 'title', 'type', 'filesize'], sort: '-uploaded_on', limit: 50, meta: 'total_count' }, signal) });
  return (
    <div className="main-pane">
      <header className="page-header"><h1>File library</h1></header>
      <div className="page-body">
        {files.error ? <ErrorNotice error={files.error} onRetry={() => void files.refetch()} /> : !files.data ? <Loading label="Loading files" /> : (
          <div className="table-wrap">
            <table className="grid">
              <caption className="visually-hidden">Files</caption>
              <thead><tr><th scope="col">Title</th><th scope="col">Type</th><th scope="col">Size</th></tr></thead>
              <tbody>
                {files.data.data.map((f) => <tr key={f.id}><td>{f.title ?? f.filename_download}</td><td>{f.type}</td><td>{f.filesize}</td></tr>)}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </div>
  );
}
