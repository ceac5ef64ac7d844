/** Page sizes of list tools (list_capabilities reports them; the spec's limit bounds must agree). */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
