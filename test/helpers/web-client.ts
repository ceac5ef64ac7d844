/**
 * A browser without a browser, for the web pages' HTTP tests: one cookie jar, the CSRF field read from
 * the last page, forms posted the way a browser does (same-origin, urlencoded), redirects not followed
 * so that tests see each answer's status, headers and cookies.
 */
export interface WebAnswer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class WebClient {
  readonly jar = new Map<string, string>();
  csrf = "";

  constructor(readonly baseUrl: string) {}

  /** The Cookie header this client sends. */
  get cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private async send(path: string, init: RequestInit): Promise<WebAnswer> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      ...init,
      redirect: "manual",
      headers: { ...(this.jar.size ? { cookie: this.cookieHeader } : {}), ...(init.headers as Record<string, string> | undefined) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/Max-Age=0/i.test(line) || value === "") this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await res.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
    if (csrf) this.csrf = csrf;
    return { status: res.status, headers: res.headers, text, location: res.headers.get("location") };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<WebAnswer> {
    return this.send(path, { method: "GET", headers });
  }

  /** Posts a form with this client's CSRF field (unless the fields set their own). */
  post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<WebAnswer> {
    const body = new URLSearchParams();
    if (!("csrf" in fields)) body.append("csrf", this.csrf);
    for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    return this.send(path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: body.toString() });
  }

  /** Signs in through the form; returns the form's answer (303 to /account when it worked). */
  async signIn(email: string, password: string, headers: Record<string, string> = {}): Promise<WebAnswer> {
    await this.get("/account", headers);
    return this.post("/account/sign-in", { email, password, next: "/account" }, headers);
  }

  /** Whether /account shows the signed-in account page (not the sign-in form). */
  async signedIn(): Promise<boolean> {
    const page = await this.get("/account");
    return page.status === 200 && page.text.includes("<h1>Your account</h1>");
  }
}
