/** Who is calling: the token's user and the token itself. Built by src/auth (tokens.ts), read by the dispatcher and handlers (src/context.ts re-exports it). */
export interface Caller {
  readonly userId: string;
  readonly tokenId: string;
  readonly tokenName: string;
  readonly scopes: ReadonlySet<string>;
  readonly expiresAt: string | null;
  /** The OAuth grant behind the token (src/oauth); null or absent for a static token. */
  readonly grantId?: string | null;
  readonly timezone: string;
  readonly defaultCurrency: string;
  /** Reached through the read-only endpoint (/api/v1/mcp/read): scopes narrowed to read scopes, no write runs. */
  readonly readOnly?: boolean;
}
