/**
 * What a resource provider is and what it gets: the extension point of the MCP resources
 * (resources/list, resources/read, resources/templates/list). src/resources/registry.ts lists the
 * providers (which read domain code, as handlers do); src/mcp/resources.ts serves them after the checks
 * every message passes (envelope, revision, token, rate limit). The types live here, in the MCP layer,
 * so that src/mcp never imports src/resources (src/resources/types.ts re-exports them for providers).
 */
import type { Knex } from "knex";
import type { Caller } from "../context.js";
import type { Config } from "../config.js";
import type { Dispatch } from "../rpc/dispatch.js";

/** What a provider gets of one request. */
export interface ResourceContext {
  readonly caller: Caller;
  readonly requestId: string;
  readonly db: Knex;
  readonly config: Config;
  now(): Date;
  /**
   * The one path of every tool call (scope, params validated, handler, result validated). A resource
   * that shows a tool's answer reads it here, so it answers exactly what the tool would.
   */
  readonly dispatch: Dispatch;
  /**
   * The client's capabilities when the request states them (2026-07-28 `_meta`, e.g.
   * `extensions["io.modelcontextprotocol/ui"]`); undefined on initialize-based revisions, since this
   * stateless server remembers nothing of initialize.
   */
  readonly clientCapabilities?: Readonly<Record<string, unknown>>;
}

/** One entry of resources/list (MCP `Resource`). */
export interface ResourceDescriptor {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** One entry of resources/templates/list (MCP `ResourceTemplate`, RFC 6570 level 1). */
export interface ResourceTemplateDescriptor {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** One item of resources/read's `contents` (MCP `TextResourceContents` or `BlobResourceContents`). */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  /** Base64. */
  blob?: string;
  _meta?: Record<string, unknown>;
}

/**
 * A source of resources. The registry asks `owns(uri)` to find the provider of a uri, checks its `scope`
 * (when it has one) and only then calls `read`. A provider whose scope the token lacks is left out of
 * both lists, and reading one of its uris answers insufficient_scope, exactly as calling a tool
 * without its scope does. A provider needing a finer rule (one scope per resource) leaves `scope` out
 * and filters in `list` and `read` itself, from `ctx.caller.scopes`.
 */
export interface ResourceProvider {
  /** A short name, for docs and tests. */
  readonly name: string;
  /** The token scope every resource of this provider needs; none: any valid token. */
  readonly scope?: string;
  /**
   * How long a 2026-07-28 client may reuse a read of this provider's resources (`ttlMs`, `cacheScope`);
   * none: not at all (`ttlMs: 0`, private), right for data that changes with every write.
   */
  readonly readCache?: ReadCache;
  /** Whether this uri is one of this provider's (by its scheme and path, without reading anything). */
  owns(uri: string): boolean;
  /** The concrete resources this caller may see (templates' instances are not listed). */
  list(ctx: ResourceContext): Promise<ResourceDescriptor[]>;
  /** The contents of an owned uri; throws resourceNotFound(uri) (src/resources/errors.ts) when there is none. */
  read(ctx: ResourceContext, uri: string): Promise<ResourceContents[]>;
  /** The URI templates of this provider, if any. */
  templates?(ctx: ResourceContext): ResourceTemplateDescriptor[];
  /**
   * Values for one variable of one of its templates (completion/complete), best first; none: no
   * completion. Only what the token may read: a provider answers [] rather than an error.
   */
  complete?(ctx: ResourceContext, uriTemplate: string, variable: string, prefix: string): Promise<string[]>;
}

/** A 2026-07-28 cache hint of a read. */
export interface ReadCache {
  ttlMs: number;
  /** "public" only when every caller reads the same bytes (no scope, nothing of the user). */
  cacheScope: "public" | "private";
}

/** All providers as one: what the MCP layer serves (src/resources/registry.ts builds it). */
export interface ResourceRegistry {
  list(ctx: ResourceContext): Promise<ResourceDescriptor[]>;
  templates(ctx: ResourceContext): ResourceTemplateDescriptor[];
  read(ctx: ResourceContext, uri: string): Promise<{ contents: ResourceContents[]; cache: ReadCache }>;
  /** completion/complete for a template variable: [] for a template this token cannot see. */
  complete(ctx: ResourceContext, uriTemplate: string, variable: string, prefix: string): Promise<string[]>;
}
