/**
 * The package root: the nearest folder above this module holding finance-mcp's package.json. The
 * contract, migrations and knowledge base are found from it, so the same code runs from src/ (tsx) and
 * from dist/src/ (the compiled build, also inside an installed package).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file) && (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name === "finance-mcp") return dir;
    if (dirname(dir) === dir) throw new Error(`finance-mcp: no package.json of finance-mcp above ${start}`);
  }
}

export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the package: packagePath("migrations"), packagePath("openrpc.json"). */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}
