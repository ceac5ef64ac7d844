/** The provider types, for providers (defined in src/mcp/resource-types.ts, so src/mcp never imports src/resources). */
export type { ResourceContext, ResourceProvider, ResourceRegistry } from "../mcp/resource-types.js";
