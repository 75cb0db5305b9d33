/** /admin/files: the file library. The folder tree is the navigation pane; the main area is the files of the
 * selected folder (/folders/{id}) or of all folders (/), or one file (/{id}). Uploads run in a queue that stays
 * while moving between these pages. */
import { Route, Switch, useRoute } from 'wouter';
import { useState } from 'react';
import { useFileAccess } from './access.ts';
import { FileDetail } from './FileDetail.tsx';
import { FolderTree } from './FolderTree.tsx';
import { useFolders } from './folders.ts';
import { Library } from './Library.tsx';
import { UploadQueueProvider } from './upload-queue.tsx';
import './files.css';

export default function FilesModule() {
  const access = useFileAccess();
  const [inFolder, folderParams] = useRoute<{ folder: string }>('/folders/:folder');
  const [onFile, fileParams] = useRoute<{ id: string }>('/:id');
  const folders = useFolders();
  const folderId = inFolder ? folderParams.folder : null;
  const fileId = onFile && !inFolder ? fileParams.id : null;
  // On a file's page the tree shows the file's folder (the page reports it once the file is read).
  const [shownFolder, setShownFolder] = useState<{ file: string; folder: string | null } | null>(null);
  const fileFolder = fileId && shownFolder?.file === fileId ? shownFolder.folder : null;
  return (
    <UploadQueueProvider>
      <div className="module-layout">
        <FolderTree selected={folderId ?? fileFolder} access={access} />
        <Switch>
          <Route path="/folders/:folder">
            <Library key={folderId} folderId={folderId} folder={folders.data?.find((f) => f.id === folderId) ?? null} access={access} />
          </Route>
          <Route path="/:id">{fileId && <FileDetail key={fileId} id={fileId} access={access} onFolder={(folder) => setShownFolder((prev) => (prev?.file === fileId && prev.folder === folder ? prev : { file: fileId, folder }))} />}</Route>
          <Route><Library key="all" folderId={null} folder={null} access={access} /></Route>
        </Switch>
      </div>
    </UploadQueueProvider>
  );
}
