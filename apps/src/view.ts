/** What a view gets: the tool's arguments and result, the element it draws in, and the App to call tools. */
import type { App } from "@modelcontextprotocol/ext-apps";

export interface ViewContext {
  app: App;
  /** The arguments the tool was called with (ui/notifications/tool-input); {} if the host sent none. */
  args: Record<string, unknown>;
  root: HTMLElement;
}

export type View = (result: Record<string, unknown>, ctx: ViewContext) => void | Promise<void>;
