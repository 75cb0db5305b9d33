/** Files, folders, assets and resumable uploads; the system collections of functions/routes/system-collections.ts
 * (SYSTEM_COLLECTIONS: notifications ... revisions); settings; content versions. */
import { SYSTEM_COLLECTIONS } from '../../system/collections.ts';
import { LIST_PARAMETERS, ONE_PARAMETERS } from '../components.ts';
import { pascal } from '../names.ts';
import { operation } from '../operation.ts';
import type { ParameterObject, SchemaObject } from '../types.ts';
import { systemCollectionRoutes } from './crud.ts';
import { arrayOf, endpoint, freeObject, listOf, oneOrMany, pathParam, type Endpoint, type SystemContext } from './endpoint.ts';

const str: SchemaObject = { type: 'string' };
const binary: SchemaObject = { type: 'string', format: 'binary' };

const UPLOAD: SchemaObject = {
  type: 'object',
  required: ['file'],
  properties: {
    file: binary,
    title: str,
    folder: { type: 'string', format: 'uuid' },
    storage: { type: 'string', description: 'Storage provider name; default the first configured' },
  },
};

const ASSET_QUERY: ParameterObject[] = [
  { name: 'width', in: 'query', schema: { type: 'integer', minimum: 1 } },
  { name: 'height', in: 'query', schema: { type: 'integer', minimum: 1 } },
  { name: 'fit', in: 'query', schema: { type: 'string', enum: ['cover', 'contain', 'fill', 'inside', 'outside'] } },
  { name: 'quality', in: 'query', schema: { type: 'integer', minimum: 1 } },
  { name: 'format', in: 'query', schema: { type: 'string', enum: ['jpg', 'jpeg', 'png', 'webp', 'avif', 'tiff'] } },
  { name: 'withoutEnlargement', in: 'query', schema: { type: 'string', enum: ['true'] } },
  { name: 'focal_point_x', in: 'query', schema: { type: 'integer' } },
  { name: 'focal_point_y', in: 'query', schema: { type: 'integer' } },
];

function files(ctx: SystemContext): Endpoint[] {
  const tag = 'Files';
  const file = ctx.record('svc_files');
  const key = ctx.key('svc_files');
  const id = pathParam('id', 'File id', key);
  const keys: SchemaObject = { type: 'object', required: ['keys'], properties: { keys: arrayOf(key) } };
  return [
    endpoint('get', '/files', operation({ id: 'readFiles', summary: 'List files (incomplete uploads excluded)', tag, parameters: LIST_PARAMETERS, data: listOf(file), raw: true })),
    endpoint('post', '/files', operation({
      id: 'uploadFiles', summary: 'Upload one or more files (multipart)', tag, parameters: ONE_PARAMETERS,
      content: { 'multipart/form-data': UPLOAD }, data: oneOrMany(file), maybeEmpty: true,
    })),
    endpoint('patch', '/files', operation({
      id: 'updateFiles', summary: 'Update the metadata of several files', tag, parameters: ONE_PARAMETERS,
      body: { type: 'object', required: ['keys', 'data'], properties: { keys: arrayOf(key), data: file } }, data: arrayOf(file), maybeEmpty: true,
    })),
    endpoint('delete', '/files', operation({
      id: 'deleteFiles', summary: 'Delete several files and their stored objects', tag, status: 204, body: { oneOf: [arrayOf(key), keys] },
    })),
    endpoint('post', '/files/import', operation({
      id: 'importFile', summary: 'Import a file from a URL', tag, parameters: ONE_PARAMETERS, data: file, maybeEmpty: true,
      body: { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' }, data: file } },
    })),
    endpoint('get', '/files/storage-locations', operation({
      id: 'readStorageLocations', summary: 'Storage provider names, the default first (admin)', tag, data: arrayOf(str),
    })),
    endpoint('get', '/files/{id}', operation({ id: 'readSingleFiles', summary: 'Read a file record', tag, parameters: [id, ...ONE_PARAMETERS], data: file, pathParams: true })),
    endpoint('patch', '/files/{id}', operation({
      id: 'updateSingleFiles', summary: 'Update a file\'s metadata (JSON) or replace its content (multipart)', tag,
      parameters: [id, ...ONE_PARAMETERS], body: file, content: { 'multipart/form-data': UPLOAD }, data: file, maybeEmpty: true, pathParams: true,
    })),
    endpoint('delete', '/files/{id}', operation({
      id: 'deleteSingleFiles', summary: 'Delete a file and its stored object', tag, parameters: [id], status: 204, pathParams: true,
    })),
    endpoint('get', '/assets/{id}', operation({
      id: 'readAsset', summary: 'The bytes of a file, optionally transformed (images); byte ranges on raw files', tag: 'Assets',
      parameters: [pathParam('id', 'File id, optionally with an extension (`{id}.jpg`)'), ...ASSET_QUERY,
        { name: 'Range', in: 'header', description: '`bytes=start-end` (raw files only)', schema: str }],
      media: { type: 'application/octet-stream', schema: binary }, pathParams: true,
      extra: {
        206: { description: 'Partial content', content: { 'application/octet-stream': { schema: binary } } },
        304: { description: 'Not modified' },
        416: { description: 'Range start beyond the end of the file (RANGE_NOT_SATISFIABLE)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    })),
    endpoint('post', '/tus', operation({
      id: 'createUpload', summary: 'Start a resumable upload (tus 1.0.0)', tag: 'Uploads', status: 201,
      description: 'Headers `Tus-Resumable: 1.0.0`, `Upload-Length`, `Upload-Metadata` (filename, filetype, folder); the upload URL is in `Location`.',
      parameters: [
        { name: 'Tus-Resumable', in: 'header', required: true, schema: { type: 'string', enum: ['1.0.0'] } },
        { name: 'Upload-Length', in: 'header', required: true, schema: { type: 'integer', minimum: 0 } },
        { name: 'Upload-Metadata', in: 'header', schema: str },
      ],
    })),
    endpoint('head', '/tus/{id}', operation({
      id: 'readUploadOffset', summary: 'Offset of a resumable upload (`Upload-Offset` header)', tag: 'Uploads', pathParams: true,
      parameters: [pathParam('id', 'Upload id'), { name: 'Tus-Resumable', in: 'header', required: true, schema: { type: 'string', enum: ['1.0.0'] } }],
    })),
    endpoint('patch', '/tus/{id}', operation({
      id: 'appendUpload', summary: 'Append a chunk to a resumable upload', tag: 'Uploads', status: 204, pathParams: true,
      parameters: [
        pathParam('id', 'Upload id'),
        { name: 'Tus-Resumable', in: 'header', required: true, schema: { type: 'string', enum: ['1.0.0'] } },
        { name: 'Upload-Offset', in: 'header', required: true, schema: { type: 'integer', minimum: 0 } },
      ],
      content: { 'application/offset+octet-stream': binary },
    })),
    endpoint('delete', '/tus/{id}', operation({
      id: 'deleteUpload', summary: 'Abort a resumable upload', tag: 'Uploads', status: 204, pathParams: true,
      parameters: [pathParam('id', 'Upload id'), { name: 'Tus-Resumable', in: 'header', required: true, schema: { type: 'string', enum: ['1.0.0'] } }],
    })),
  ];
}

function versions(ctx: SystemContext): Endpoint[] {
  const tag = 'Versions';
  const version = ctx.record('svc_versions');
  const key = ctx.key('svc_versions');
  const id = pathParam('id', 'Version id', key);
  return [
    endpoint('get', '/versions', operation({ id: 'readVersions', summary: 'List content versions', tag, parameters: LIST_PARAMETERS, data: listOf(version), raw: true })),
    endpoint('post', '/versions', operation({
      id: 'createVersions', summary: 'Create a content version (draft)', tag, data: key, unique: true,
      body: { type: 'object', required: ['key', 'collection', 'item'], properties: { key: str, name: str, collection: str, item: str, delta: freeObject() } },
    })),
    endpoint('get', '/versions/{id}', operation({ id: 'readSingleVersions', summary: 'Read a content version', tag, parameters: [id, ...ONE_PARAMETERS], data: version, pathParams: true })),
    endpoint('patch', '/versions/{id}', operation({
      id: 'updateSingleVersions', summary: 'Change a version\'s name or delta', tag, parameters: [id], pathParams: true, data: key,
      body: { type: 'object', properties: { name: str, delta: freeObject() } },
    })),
    endpoint('delete', '/versions/{id}', operation({ id: 'deleteSingleVersions', summary: 'Delete a version (not approved or pending)', tag, parameters: [id], status: 204, pathParams: true })),
    endpoint('get', '/versions/{id}/compare', operation({ id: 'compareVersion', summary: 'The version\'s delta against the main item', tag, parameters: [id], data: freeObject(), pathParams: true })),
    endpoint('post', '/versions/{id}/save', operation({
      id: 'saveVersion', summary: 'Merge changes into the version\'s delta', tag, parameters: [id], body: freeObject('Changed fields'), data: freeObject(), pathParams: true,
    })),
    endpoint('post', '/versions/{id}/submit', operation({
      id: 'submitVersion', summary: 'Submit the version for review', tag, parameters: [id], pathParams: true,
      data: { type: 'object', properties: { id: str, status: { type: 'string', enum: ['pending'] } } },
    })),
    endpoint('post', '/versions/{id}/promote', operation({ id: 'promoteVersion', summary: 'Apply the delta to the item', tag, parameters: [id], status: 204, pathParams: true })),
  ];
}

export function contentEndpoints(ctx: SystemContext): Endpoint[] {
  const out = [...files(ctx)];
  out.push(...systemCollectionRoutes(ctx, { path: 'folders', collection: 'svc_folders', tag: 'Folders', stem: 'Folders', noun: 'folder' }));
  for (const def of SYSTEM_COLLECTIONS) {
    const stem = pascal(def.path);
    out.push(...systemCollectionRoutes(ctx, { path: def.path, collection: def.collection, tag: stem, stem, noun: def.path.replace(/s$/, '') }, def.readOnly));
  }
  const settings = ctx.record('svc_settings');
  out.push(
    endpoint('get', '/settings', operation({ id: 'readSettings', summary: 'Read the settings', tag: 'Settings', parameters: ONE_PARAMETERS, data: settings })),
    endpoint('patch', '/settings', operation({
      id: 'updateSettings', summary: 'Update the settings', tag: 'Settings', parameters: ONE_PARAMETERS, body: settings, data: settings, maybeEmpty: true,
    })),
    ...versions(ctx),
  );
  return out;
}
