/**
 * Offline stand-in for SST's generated platform types.
 *
 * `sst.config.ts` normally type-checks against `.sst/platform/config.d.ts`, which `sst install` writes after
 * downloading the platform (Pulumi providers) — that needs network access the development machines do not
 * have. This file declares exactly the subset of SST v3's globals (`$config`, `$app`, `$dev`, `$interpolate`,
 * `$util`) and `sst.aws.*` components (with the arguments) that sst.config.ts and infra/ use, following SST's
 * documented component API. After `sst install` on a machine with network access, the generated
 * `.sst/platform/config.d.ts` is the source of truth: reference it from sst.config.ts and delete this file if
 * the two disagree.
 *
 * Deliberately a global script (no top-level import/export), like the generated file.
 */

declare namespace $util {
  /** Pulumi's Output<T>: a value known after deployment. */
  interface Output<T> {
    apply<U>(fn: (value: T) => U | Promise<U> | Output<U>): Output<U>;
  }
  type Input<T> = T | Promise<T> | Output<T>;
  function output<T>(value: Input<T>): Output<T>;
  function interpolate(literals: TemplateStringsArray, ...placeholders: unknown[]): Output<string>;
  function all<T extends unknown[]>(values: [...{ [K in keyof T]: Input<T[K]> }]): Output<T>;
  function jsonStringify(value: unknown): Output<string>;
}

/** Same as $util.interpolate: a template string over Outputs. */
declare function $interpolate(literals: TemplateStringsArray, ...placeholders: unknown[]): $util.Output<string>;

interface SstAppInput {
  /** Stage the command runs for (`sst deploy --stage production`). */
  stage: string;
}

interface SstApp {
  name: string;
  home: 'aws' | 'cloudflare' | 'local';
  removal?: 'remove' | 'retain' | 'retain-all';
  protect?: boolean;
  providers?: Record<string, unknown>;
}

interface SstConfig {
  app(input: SstAppInput): SstApp | Promise<SstApp>;
  run(): Promise<Record<string, unknown> | void>;
}

declare function $config(input: SstConfig): SstConfig;

/** The app being deployed. */
declare const $app: { readonly name: string; readonly stage: string };
/** True under `sst dev`. */
declare const $dev: boolean;

declare namespace sst {
  type Input<T> = $util.Input<T>;
  type Output<T> = $util.Output<T>;

  /** Anything that can be linked (`link: [...]`): grants permissions and exposes it to `Resource` in code. */
  interface Linkable {
    readonly urn: Output<string>;
  }

  class Secret implements Linkable {
    constructor(name: string, placeholder?: Input<string>);
    readonly urn: Output<string>;
    readonly name: Output<string>;
    readonly value: Output<string>;
  }

  namespace aws {
    interface VpcArgs {
      /** Availability zones (count or names); default 2. */
      az?: Input<number | Input<string>[]>;
      /** NAT for private subnets: "ec2" (cheap instance) or "managed" (NAT gateway). */
      nat?: Input<'ec2' | 'managed'>;
      bastion?: Input<boolean>;
    }
    class Vpc {
      constructor(name: string, args?: VpcArgs);
      readonly id: Output<string>;
      readonly publicSubnets: Output<Output<string>[]>;
      readonly privateSubnets: Output<Output<string>[]>;
      readonly securityGroups: Output<Output<string>[]>;
    }

    interface PostgresArgs {
      vpc: Vpc;
      /** Postgres engine version, e.g. "16.4". */
      version?: Input<string>;
      /** Instance type without the `db.` prefix, e.g. "t4g.micro". */
      instance?: Input<string>;
      /** Storage size, e.g. "20 GB". */
      storage?: Input<string>;
      database?: Input<string>;
      username?: Input<string>;
      password?: Input<string>;
      multiAz?: Input<boolean>;
      /** RDS Proxy in front of the instance (recommended for Lambda). */
      proxy?: Input<boolean | { credentials?: Input<{ username: Input<string>; password: Input<string> }[]> }>;
    }
    class Postgres implements Linkable {
      constructor(name: string, args: PostgresArgs);
      readonly urn: Output<string>;
      readonly host: Output<string>;
      readonly port: Output<number>;
      readonly username: Output<string>;
      readonly password: Output<string>;
      readonly database: Output<string>;
    }

    interface RedisArgs {
      vpc: Vpc;
      engine?: Input<'redis' | 'valkey'>;
      version?: Input<string>;
      /** Node type without the `cache.` prefix, e.g. "t4g.micro". */
      instance?: Input<string>;
      /** `false` disables cluster mode (one primary; a plain ioredis client works). */
      cluster?: Input<boolean | { nodes: Input<number> }>;
    }
    class Redis implements Linkable {
      constructor(name: string, args: RedisArgs);
      readonly urn: Output<string>;
      readonly host: Output<string>;
      readonly port: Output<number>;
      readonly username: Output<string>;
      readonly password: Output<string>;
    }

    interface QueueArgs {
      fifo?: Input<boolean>;
      /** e.g. "60 seconds". */
      visibilityTimeout?: Input<string>;
      /** A dead-letter queue (its ARN): SQS moves a message there after `retry` receives (the redrive policy's
       * maxReceiveCount; SST's default 3). */
      dlq?: Input<string | { queue: Input<string>; retry?: Input<number> }>;
      transform?: {
        /** Arguments of the underlying aws.sqs.Queue, e.g. `messageRetentionSeconds`. */
        queue?: Record<string, unknown>;
      };
    }
    class Queue implements Linkable {
      constructor(name: string, args?: QueueArgs);
      readonly urn: Output<string>;
      readonly url: Output<string>;
      readonly arn: Output<string>;
    }

    interface BucketArgs {
      access?: Input<'public' | 'cloudfront'>;
      versioning?: Input<boolean>;
      cors?: Input<false | {
        allowHeaders?: Input<Input<string>[]>;
        allowMethods?: Input<Input<'DELETE' | 'GET' | 'HEAD' | 'POST' | 'PUT'>[]>;
        allowOrigins?: Input<Input<string>[]>;
        exposeHeaders?: Input<Input<string>[]>;
        maxAge?: Input<string>;
      }>;
    }
    class Bucket implements Linkable {
      constructor(name: string, args?: BucketArgs);
      readonly urn: Output<string>;
      readonly name: Output<string>;
      readonly arn: Output<string>;
      readonly domain: Output<string>;
    }

    interface FunctionArgs {
      /** "path/to/file.exportName", relative to the project root. */
      handler: Input<string>;
      runtime?: Input<'nodejs18.x' | 'nodejs20.x' | 'nodejs22.x'>;
      architecture?: Input<'x86_64' | 'arm64'>;
      /** e.g. "1024 MB". */
      memory?: Input<string>;
      /** e.g. "30 seconds". */
      timeout?: Input<string>;
      environment?: Input<Record<string, Input<string>>>;
      link?: Input<unknown[]>;
      vpc?: Vpc;
      url?: Input<boolean>;
      nodejs?: Input<{
        /** Packages installed into the bundle instead of bundled (native addons). */
        install?: Input<string[]>;
        format?: Input<'cjs' | 'esm'>;
        sourcemap?: Input<boolean>;
        minify?: Input<boolean>;
        /** esbuild options, e.g. `external` for packages never loaded in the function. */
        esbuild?: Input<{ external?: string[] }>;
      }>;
      /** Files copied into the bundle, e.g. [{ from: "migrations" }]. */
      copyFiles?: Input<{ from: Input<string>; to?: Input<string> }[]>;
    }
    class Function implements Linkable {
      constructor(name: string, args: FunctionArgs);
      readonly urn: Output<string>;
      readonly name: Output<string>;
      readonly arn: Output<string>;
      readonly url: Output<string>;
    }

    interface ApiGatewayV2Args {
      vpc?: Vpc;
      cors?: Input<boolean | {
        allowOrigins?: Input<Input<string>[]>;
        allowMethods?: Input<Input<string>[]>;
        allowHeaders?: Input<Input<string>[]>;
        exposeHeaders?: Input<Input<string>[]>;
        allowCredentials?: Input<boolean>;
        maxAge?: Input<string>;
      }>;
      accessLog?: Input<{ retention?: Input<string> }>;
    }
    class ApiGatewayV2 implements Linkable {
      constructor(name: string, args?: ApiGatewayV2Args);
      readonly urn: Output<string>;
      readonly url: Output<string>;
      /** `rawRoute` is "METHOD /path", "ANY /path/{proxy+}" or "$default"; the handler a file path, function
       * args, or the ARN of an existing function. */
      route(rawRoute: string, handler: Input<string | FunctionArgs>, args?: { auth?: Input<false | { iam?: Input<boolean> }> }): unknown;
    }

    interface ClusterArgs {
      vpc: Vpc;
    }
    class Cluster {
      constructor(name: string, args: ClusterArgs);
      readonly urn: Output<string>;
    }

    interface ServiceArgs {
      cluster: Cluster;
      /** A registry image, or a Dockerfile to build (relative to the project root). */
      image?: Input<string | { context?: Input<string>; dockerfile?: Input<string>; args?: Input<Record<string, Input<string>>> }>;
      command?: Input<Input<string>[]>;
      cpu?: Input<'0.25 vCPU' | '0.5 vCPU' | '1 vCPU' | '2 vCPU' | '4 vCPU' | '8 vCPU' | '16 vCPU'>;
      memory?: Input<string>;
      /** Ephemeral storage, e.g. "30 GB" (transformed-asset cache). */
      storage?: Input<string>;
      architecture?: Input<'x86_64' | 'arm64'>;
      environment?: Input<Record<string, Input<string>>>;
      link?: Input<unknown[]>;
      loadBalancer?: Input<{
        public?: Input<boolean>;
        /** Custom domain of the load balancer (an ACM certificate is created; needed for "443/https"). */
        domain?: Input<string | ServiceDomain>;
        /** "80/http" listens on 80 and forwards to the same port unless `forward` says otherwise. */
        ports: Input<{ listen: Input<string>; forward?: Input<string> }[]>;
        /** Target-group health checks, keyed by the forwarded "port/protocol". */
        health?: Input<Record<string, Input<{
          path?: Input<string>;
          interval?: Input<string>;
          timeout?: Input<string>;
          healthyThreshold?: Input<number>;
          unhealthyThreshold?: Input<number>;
          successCodes?: Input<string>;
        }>>>;
      }>;
      scaling?: Input<{
        min?: Input<number>;
        max?: Input<number>;
        cpuUtilization?: Input<number | false>;
        memoryUtilization?: Input<number | false>;
      }>;
      /** Container health check run by ECS. */
      health?: Input<{
        command: Input<Input<string>[]>;
        startPeriod?: Input<string>;
        timeout?: Input<string>;
        interval?: Input<string>;
        retries?: Input<number>;
      }>;
      transform?: {
        /** Arguments of the aws.lb.LoadBalancer SST creates (merged over SST's): `idleTimeout` in seconds (ALB
         * default 60). */
        loadBalancer?: { idleTimeout?: Input<number> };
      };
    }
    interface ServiceDomain {
      name: Input<string>;
    }
    class Service implements Linkable {
      constructor(name: string, args: ServiceArgs);
      readonly urn: Output<string>;
      /** The load balancer's URL (http://... unless a domain is set). */
      readonly url: Output<string>;
    }

    /** An entry of StaticSite `assets.fileOptions`: globs relative to the build output (matched with dot files);
     * SST applies the options last to first, each file once, and uploads only the files some option takes. */
    interface StaticSiteFileOptions {
      files: string | string[];
      ignore?: string | string[];
      cacheControl?: string;
      contentType?: string;
    }
    interface StaticSiteArgs {
      /** The site's directory, relative to sst.config.ts (default "."); `build` runs there. A directory holding a
       * vite.config.ts gets a generated src/sst-env.d.ts. */
      path?: Input<string>;
      /** Run before the upload; `output` (relative to `path`) is what is uploaded. */
      build?: Input<{ command: Input<string>; output: Input<string> }>;
      /** Default "index.html"; without `errorPage` it is also the answer for paths matching no file (SPA). */
      indexPage?: string;
      /** A 404 page (since SST v4.2.2 answered with status 404); leave unset for a single-page app. */
      errorPage?: Input<string>;
      /** Build-time environment (VITE_* reach the browser). */
      environment?: Input<Record<string, Input<string>>>;
      assets?: {
        textEncoding?: Input<'utf-8' | 'iso-8859-1' | 'windows-1252' | 'ascii' | 'none'>;
        /** Default: "**" `max-age=31536000,public,immutable`, then "**\/*.html"
         * `max-age=0,no-cache,no-store,must-revalidate`. */
        fileOptions?: Input<StaticSiteFileOptions[]>;
        /** Drop the files of earlier deploys (default true). */
        purge?: Input<boolean>;
      };
      /** Serve through a Router (its distribution, its KeyValueStore routing) instead of a distribution of the site's
       * own; `path` is the prefix (the site's Vite `base` must be the same plus "/"). Excludes `domain` and `edge`. */
      router?: {
        instance: Input<Router>;
        domain?: Input<string>;
        path?: Input<string>;
      };
      /** CloudFront invalidation after a deploy that changed files: default `{ paths: "all" (/*), wait: false }`, on
       * the Router's distribution when served through one. */
      invalidation?: Input<false | { paths?: Input<'all' | string[]>; wait?: Input<boolean> }>;
      /** `sst dev`: run the site's dev server (default `npm run dev` in `path`) instead of deploying it; false deploys. */
      dev?: false | { command?: Input<string>; url?: Input<string>; directory?: Input<string>; title?: Input<string>; autostart?: Input<boolean> };
    }
    class StaticSite implements Linkable {
      constructor(name: string, args?: StaticSiteArgs);
      readonly urn: Output<string>;
      /** The site's URL: through a Router, the router's URL followed by `router.path`. */
      readonly url: Output<string>;
    }

    interface RouterUrlRouteArgs {
      /** Rewrites the path before it reaches the origin: `regex` over the path, replaced by `to`. */
      rewrite?: Input<{ regex: Input<string>; to: Input<string> }>;
      readTimeout?: Input<string>;
      keepAliveTimeout?: Input<string>;
      connectionTimeout?: Input<string>;
      connectionAttempts?: Input<number>;
    }
    interface RouterArgs {
      domain?: Input<string | { name: Input<string>; aliases?: Input<string[]> }>;
      /** CloudFront Functions code injected into the router's functions (one behaviour for every route).
       * `viewerRequest`: the Router-level injection runs before the routing code, so it may change
       * `event.request.uri` to steer a request to another route. `viewerResponse`: a viewer-response function
       * `async function handler(event) { <injection> return event.response; }` is created only when given. */
      edge?: Input<{
        viewerRequest?: Input<{ injection: Input<string> }>;
        viewerResponse?: Input<{ injection: Input<string> }>;
      }>;
      transform?: {
        /** Arguments of the aws.cloudfront.CachePolicy attached to the router's behaviours (merged over SST's). */
        cachePolicy?: {
          comment?: Input<string>;
          defaultTtl?: Input<number>;
          minTtl?: Input<number>;
          maxTtl?: Input<number>;
          parametersInCacheKeyAndForwardedToOrigin?: Input<{
            cookiesConfig: Input<{ cookieBehavior: Input<'none' | 'whitelist' | 'allExcept' | 'all'>; cookies?: Input<{ items: Input<string>[] }> }>;
            headersConfig: Input<{ headerBehavior: Input<'none' | 'whitelist'>; headers?: Input<{ items: Input<string>[] }> }>;
            queryStringsConfig: Input<{ queryStringBehavior: Input<'none' | 'whitelist' | 'allExcept' | 'all'>; queryStrings?: Input<{ items: Input<string>[] }> }>;
            enableAcceptEncodingBrotli?: Input<boolean>;
            enableAcceptEncodingGzip?: Input<boolean>;
          }>;
        };
      };
    }
    class Router {
      constructor(name: string, args?: RouterArgs);
      readonly urn: Output<string>;
      readonly url: Output<string>;
      /** `pattern` is a path prefix ("/api"), optionally with a host ("api.example.com/v1"); the longest
       * matching prefix wins. */
      route(pattern: Input<string>, url: Input<string>, args?: RouterUrlRouteArgs): void;
      routeBucket(pattern: Input<string>, bucket: Bucket, args?: { rewrite?: Input<{ regex: Input<string>; to: Input<string> }> }): void;
    }
  }
}
