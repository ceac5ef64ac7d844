/** The provider types, for providers (defined in src/mcp/resource-types.ts, so src/mcp never imports src/resources). */
export type {
  ReadCache,
  ResourceContents,
  ResourceContext,
  ResourceDescriptor,
  ResourceProvider,
  ResourceRegistry,
  ResourceTemplateDescriptor,
} from "../mcp/resource-types.js";
