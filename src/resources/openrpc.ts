/**
 * The OpenRPC document (every tool's params, result, scope, errors and examples) as one resource: the
 * published document codegen writes from openrpc.json (clients/openrpc/openrpc.json), the same JSON
 * GET /api/v1/openrpc.json and rpc.discover serve without a token. Every token may read it.
 */
import { readFileSync } from "node:fs";
import { packagePath } from "../package-root.js";
import { resourceNotFound } from "./errors.js";
import type { ResourceProvider } from "./types.js";

export const OPENRPC_URI = "finance://openrpc.json";
const MIME = "application/json";

let text: string | undefined;
/** Read once, minified as the HTTP endpoint sends it. */
const documentText = (): string => (text ??= JSON.stringify(JSON.parse(readFileSync(packagePath("clients/openrpc/openrpc.json"), "utf8"))));

export const openRpcDocument: ResourceProvider = {
  name: "OpenRPC document",
  // The same bytes for everyone until the next release.
  readCache: { ttlMs: 3_600_000, cacheScope: "public" },
  owns: (uri) => uri === OPENRPC_URI,
  list: () =>
    Promise.resolve([
      {
        uri: OPENRPC_URI,
        name: "openrpc.json",
        title: "finance-mcp API contract (OpenRPC)",
        description: "Every tool's params, result, scope, errors and examples.",
        mimeType: MIME,
        size: Buffer.byteLength(documentText()),
      },
    ]),
  read(_ctx, uri) {
    if (uri !== OPENRPC_URI) throw resourceNotFound(uri);
    return Promise.resolve([{ uri, mimeType: MIME, text: documentText() }]);
  },
};
