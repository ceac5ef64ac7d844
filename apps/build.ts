/**
 * Bundles the apps for codegen (generated/apps.ts): one script (src/main.ts with the ext-apps SDK it
 * imports) and one style sheet, both minified by esbuild. Deterministic for the same sources and esbuild
 * version, so codegen:check can compare. esbuild: already installed (tsx runs on it), one binary, no
 * config, and it inlines everything into a string the resource embeds (the app may load nothing).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { build, transform } from "esbuild";

export async function bundleApps(root: string): Promise<{ script: string; style: string }> {
  const out = await build({
    entryPoints: [join(root, "apps/src/main.ts")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
    absWorkingDir: root,
    tsconfig: join(root, "apps/tsconfig.json"),
  });
  const script = out.outputFiles[0]!.text;
  const css = await transform(await readFile(join(root, "apps/src/style.css"), "utf8"), { loader: "css", minify: true });
  return { script, style: css.code };
}
