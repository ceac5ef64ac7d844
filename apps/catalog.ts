/**
 * The MCP Apps, by the last segment of their ui:// URI (openrpc.json x-apps names the tool each draws).
 * Plain data, read by codegen (generated/apps.ts) for resources/list; the views are in src/views/.
 */
export const catalog = {
  spending: {
    title: "Spending breakdown",
    description: "get_transaction_summary drawn as bars per category (or month), against the period before.",
  },
  budgets: {
    title: "Budget gauges",
    description: "get_budget_status drawn as gauges: spent against the limit, with how far the period has gone.",
  },
  "net-worth": {
    title: "Net worth over time",
    description: "get_net_worth drawn as a line in the home currency.",
  },
  forecast: {
    title: "Cash-flow forecast",
    description: "get_cash_flow_forecast drawn as a balance line per wallet and in total, the low point marked, with the events behind it.",
  },
  import: {
    title: "Import preview",
    description: "import_transactions' preview: tick possible duplicates to import, then confirm; nothing is written before.",
  },
} as const satisfies Record<string, { title: string; description: string }>;

export type AppView = keyof typeof catalog;
