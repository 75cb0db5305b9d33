/** Runtime schema management: the service layer behind /collections, /fields and /relations. */
export type { SchemaServiceContext } from './context.ts';
export { createCollection, deleteCollection, readCollection, readCollections, updateCollection, updateCollections } from './collections.ts';
export { createField, deleteField, readAllFields, readCollectionFields, readOneField, updateField, updateFields } from './fields.ts';
export { createRelation, deleteRelation, readRelation, readRelations, updateRelation } from './relations.ts';
export type { CollectionObject, FieldObject, RelationObject } from './shapes.ts';
