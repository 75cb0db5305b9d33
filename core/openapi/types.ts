/** The parts of the OpenAPI 3.0.3 object model the document builder writes (a subset, typed strictly). */

export interface SchemaObject {
  $ref?: string;
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  format?: string;
  pattern?: string;
  enum?: (string | number | boolean | null)[];
  nullable?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
  description?: string;
  maxLength?: number;
  minimum?: number;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  additionalProperties?: boolean | SchemaObject;
  oneOf?: SchemaObject[];
  example?: unknown;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description?: string;
  style?: 'form' | 'deepObject' | 'simple';
  explode?: boolean;
  schema: SchemaObject;
}

export interface Reference { $ref: string }

export interface MediaTypeObject { schema: SchemaObject }

export interface RequestBodyObject {
  required?: boolean;
  description?: string;
  content: Record<string, MediaTypeObject>;
}

export interface HeaderObject { description?: string; schema: SchemaObject }

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, MediaTypeObject>;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: (ParameterObject | Reference)[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | Reference>;
  security?: Record<string, string[]>[];
}

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete' | 'head';

export type PathItemObject = Partial<Record<HttpMethod, OperationObject>> & { parameters?: (ParameterObject | Reference)[] };

export interface TagObject { name: string; description?: string }

export interface SecuritySchemeObject {
  type: 'http' | 'apiKey';
  scheme?: string;
  bearerFormat?: string;
  name?: string;
  in?: 'query' | 'header' | 'cookie';
  description?: string;
}

export interface OpenApiDocument {
  openapi: '3.0.3';
  info: { title: string; version: string; description?: string };
  servers: { url: string }[];
  tags: TagObject[];
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, SchemaObject>;
    parameters: Record<string, ParameterObject>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
  };
  security: Record<string, string[]>[];
}
