/**
 * A test host page, the way a web chat client embeds an MCP App (ext-apps spec, "Sandbox proxy"): the
 * ext-apps SDK's AppBridge on the host page, a sandbox proxy iframe on another origin (sandbox.ts, served
 * with the CSP built from the resource's _meta.ui.csp), and the app's HTML inside it. Tool calls from the
 * app go to window.hostCallTool, which the test binds to an official SDK client (Node side,
 * test/helpers/app-host.ts). Bundled by esbuild when the harness starts; never shipped.
 */
import { AppBridge, PostMessageTransport, type McpUiResourceCsp } from "@modelcontextprotocol/ext-apps/app-bridge";

interface MountOptions {
  html: string;
  csp: McpUiResourceCsp | undefined;
  sandboxUrl: string;
  toolArguments: Record<string, unknown>;
  toolResult: Record<string, unknown>;
  theme: "light" | "dark";
}

declare global {
  interface Window {
    hostCallTool(params: unknown): Promise<Record<string, unknown>>;
    mountApp(options: MountOptions): Promise<void>;
    modelContext: unknown[];
    appHeight: number;
  }
}

window.modelContext = [];
window.appHeight = 0;

window.mountApp = async (o) => {
  document.documentElement.dataset.theme = o.theme;
  const frame = document.createElement("iframe");
  frame.id = "app-frame";
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const url = new URL(o.sandboxUrl);
  url.searchParams.set("csp", JSON.stringify(o.csp ?? {}));
  frame.src = url.href;
  document.getElementById("slot")!.append(frame);

  const bridge = new AppBridge(
    null,
    { name: "finance-mcp test host", version: "1.0.0" },
    { serverTools: {}, logging: {}, updateModelContext: { text: {} } },
    {
      hostContext: {
        theme: o.theme,
        locale: "en-US",
        timeZone: "UTC",
        platform: "web",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        containerDimensions: { maxHeight: 4000 },
      },
    },
  );
  bridge.oncalltool = (params) => window.hostCallTool(params) as never;
  bridge.onupdatemodelcontext = async (params) => {
    window.modelContext.push(params);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) {
      frame.style.height = `${height}px`;
      window.appHeight = height;
    }
  };
  bridge.onsandboxready = () => void bridge.sendSandboxResourceReady({ html: o.html, csp: o.csp });
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await initialized;
  await bridge.sendToolInput({ arguments: o.toolArguments });
  await bridge.sendToolResult(o.toolResult as never);
};
