/**
 * Ready-to-paste configuration of the common MCP clients for one server URL and bearer token. Each
 * client's own format: Claude Code's `claude mcp add`, VS Code's .vscode/mcp.json, Cursor's mcp.json,
 * Claude Desktop through mcp-remote (it speaks stdio only; mcp-remote bridges to HTTP, and the header is
 * passed through an environment variable so the space in it survives every platform's argument
 * splitting), and Gemini CLI's settings.json (httpUrl: Streamable HTTP).
 */
export interface ClientConfig {
  client: string;
  /** Where it goes. */
  where: string;
  text: string;
}

export function clientConfigs(url: string, token: string, name = "finance"): ClientConfig[] {
  const authorization = `Bearer ${token}`;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    {
      client: "Claude Code",
      where: "run in a terminal",
      text: `claude mcp add --transport http ${name} ${url} --header "Authorization: ${authorization}"`,
    },
    {
      client: "VS Code",
      where: ".vscode/mcp.json in your workspace",
      text: json({ servers: { [name]: { type: "http", url, headers: { Authorization: authorization } } } }),
    },
    {
      client: "Cursor",
      where: "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
      text: json({ mcpServers: { [name]: { url, headers: { Authorization: authorization } } } }),
    },
    {
      client: "Claude Desktop",
      where: "claude_desktop_config.json (Settings > Developer > Edit Config), through mcp-remote",
      text: json({
        mcpServers: {
          [name]: { command: "npx", args: ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}"], env: { AUTH_HEADER: authorization } },
        },
      }),
    },
    {
      client: "Gemini CLI",
      where: "~/.gemini/settings.json",
      text: json({ mcpServers: { [name]: { httpUrl: url, headers: { Authorization: authorization } } } }),
    },
  ];
}
