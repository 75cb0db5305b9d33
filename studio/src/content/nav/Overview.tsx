/** /content with no collection chosen: the collections the caller may read, in navigation order, with their notes;
 * or, when there are none, what to do about it (an admin creates collections through the data model API). */
import { Link } from 'wouter';
import { titleOf } from '../schema.ts';
import { CollectionIcon } from './CollectionIcon.tsx';
import { flatten, type NavNode } from './tree.ts';

export function Overview({ tree, admin }: { tree: NavNode[]; admin: boolean }) {
  const rows = flatten(tree);
  return (
    <div className="main-pane">
      <header className="page-header"><h1>Content</h1></header>
      <div className="page-body">
        {rows.length === 0 ? (
          <div className="overview-empty">
            <h2>No collections yet</h2>
            {admin ? (
              <>
                <p>Collections hold your content: articles, products, pages. Create one through the data model API, for example:</p>
                <pre className="overview-code"><code>{`POST /collections
{
  "collection": "articles",
  "schema": {},
  "fields": [
    { "field": "title", "type": "string" },
    { "field": "body", "type": "text" }
  ]
}`}</code></pre>
                <p className="muted">It shows up here as soon as it exists. Group collections in a folder with <code>meta.group</code>.</p>
              </>
            ) : (
              <p>There is no content you can read yet. Ask an administrator to share a collection with your role.</p>
            )}
          </div>
        ) : (
          <ul className="overview-list" aria-label="All collections">
            {rows.map(({ node, depth }) => (
              <li key={node.name} className={node.folder ? 'overview-folder' : undefined} style={depth ? { paddingLeft: depth * 20 } : undefined}>
                {node.folder && <span className="overview-chevron" aria-hidden="true">▾</span>}
                <CollectionIcon icon={node.collection.meta?.icon} color={node.collection.meta?.color} folder={node.folder} name={node.name} />
                {node.folder ? <span className="overview-name">{titleOf(node.name)}</span>
                  : <Link href={`/${node.name}`} className="overview-name">{titleOf(node.name)}</Link>}
                {node.collection.meta?.singleton && <span className="badge">Single item</span>}
                {node.collection.meta?.note && <span className="muted overview-note">{node.collection.meta.note}</span>}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
