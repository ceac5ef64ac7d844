/**
 * The sandbox proxy (ext-apps spec, "Sandbox proxy"): on its own origin, under the CSP the harness built
 * from the resource's _meta.ui.csp (the srcdoc frame inherits it). It loads the HTML the host sends in
 * ui/notifications/sandbox-resource-ready into an inner frame and relays every other message both ways.
 */
const inner = document.createElement("iframe");
inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
document.body.append(inner);

window.addEventListener("message", (e: MessageEvent) => {
  const m = e.data as { method?: string; params?: { html?: string } } | null;
  if (e.source === window.parent) {
    if (m?.method === "ui/notifications/sandbox-resource-ready") inner.srcdoc = m.params?.html ?? "";
    else if (!m?.method?.startsWith("ui/notifications/sandbox-")) inner.contentWindow?.postMessage(m, "*");
  } else if (e.source === inner.contentWindow) {
    window.parent.postMessage(m, "*");
  }
});
window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, "*");
export {};
