/** /admin/data-model (admins): the collections in their folders (create, reorder, settings, delete), each
 * collection's fields (create, edit, reorder, group, delete) and the relation wizards. Everything goes through the
 * public schema API (/collections, /fields, /relations); after each change the cached schema is read again, so the
 * content module shows the new model at once. */
import { Link, Route, Switch, useLocation } from 'wouter';
import { useAllFields, useCollections, useRelations } from '../content/schema.ts';
import { CollectionIcon } from '../content/nav/CollectionIcon.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { SectionLayout } from '../ui/SectionLayout.tsx';
import { CollectionsPage } from './collections/CollectionsPage.tsx';
import { CollectionPage } from './collections/CollectionPage.tsx';
import { FieldPage } from './fields/FieldPage.tsx';
import { buildTree, type TreeNode } from './collections/tree.ts';
import type { FullCollection, FullField } from './model.ts';
import type { Relation } from '../content/schema.ts';
import '../content/nav/nav.css';
import '../content/list/list.css';
import '../content/item/item.css';
import './datamodel.css';

export interface SchemaData {
  collections: FullCollection[];
  fields: FullField[];
  relations: Relation[];
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default function DataModelModule() {
  const collections = useCollections();
  const fields = useAllFields();
  const relations = useRelations();
  const error = collections.error ?? fields.error ?? relations.error;
  const data: SchemaData | null = collections.data && fields.data && relations.data
    ? { collections: collections.data as FullCollection[], fields: fields.data as FullField[], relations: relations.data }
    : null;

  let body;
  if (error && !data) {
    body = (
      <div className="main-pane"><div className="page-body">
        <ErrorNotice error={error} onRetry={() => { void collections.refetch(); void fields.refetch(); void relations.refetch(); }} />
      </div></div>
    );
  } else if (!data) {
    body = <Loading label="Loading the data model" />;
  } else {
    body = (
      <Switch>
        <Route path="/"><CollectionsPage data={data} /></Route>
        {/* A new field is at /{collection}/+ (no field name holds a "+"). */}
        <Route path="/:collection/:field">
          {(p: { collection: string; field: string }) => <FieldPage data={data} collection={decode(p.collection)} field={p.field === '+' ? null : decode(p.field)} />}
        </Route>
        <Route path="/:collection">{(p: { collection: string }) => <CollectionPage data={data} collection={decode(p.collection)} />}</Route>
      </Switch>
    );
  }
  return (
    <SectionLayout title="Data model" sections={[{ href: '/', label: 'All collections' }]}
      navExtra={data && <CollectionNav tree={buildTree(data.collections)} />}>
      {body}
    </SectionLayout>
  );
}

/** The collections under the section list, for moving between them (folders as headings). */
function CollectionNav({ tree }: { tree: TreeNode[] }) {
  const [location] = useLocation();
  const current = decode(location.split('/')[1] ?? '');
  if (tree.length === 0) return null;
  const render = (nodes: TreeNode[]) => nodes.map((n) => (
    <li key={n.name}>
      <Link href={`/${encodeURIComponent(n.name)}`} className="nav-item" aria-current={current === n.name ? 'page' : undefined}>
        <CollectionIcon icon={n.collection.meta?.icon} color={n.collection.meta?.color} folder={n.collection.schema === null} name={n.name} />
        <span className="nav-label">{n.name}</span>
      </Link>
      {n.children.length > 0 && <ul className="nav-list">{render(n.children)}</ul>}
    </li>
  ));
  return (
    <div className="dm-nav">
      <h3 id="dm-nav-heading">Collections</h3>
      <ul className="nav-list" aria-labelledby="dm-nav-heading">{render(tree)}</ul>
    </div>
  );
}
