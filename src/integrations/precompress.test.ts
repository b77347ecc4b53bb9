import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { precompressDir } from "./precompress.ts";

describe("precompressDir", () => {
  let dist: string;
  const script = `export const text = ${JSON.stringify("a portal island ".repeat(200))};\n`;

  beforeEach(async () => {
    dist = await mkdtemp(join(tmpdir(), "precompress-"));
    await mkdir(join(dist, "_astro"));
    await writeFile(join(dist, "_astro/island.js"), script);
    await writeFile(join(dist, "index.html"), `<!doctype html><p>${"hello ".repeat(300)}</p>`);
    await writeFile(join(dist, "_astro/tiny.js"), "export{}");
    await writeFile(join(dist, "og-image.jpg"), Buffer.alloc(4096, 7));
    await writeFile(join(dist, "_headers"), "/*\n  X-Frame-Options: DENY\n".repeat(50));
  });

  afterEach(async () => {
    await rm(dist, { recursive: true, force: true });
  });

  it("writes .br and .gz copies of text files that decode to the original", async () => {
    await precompressDir(dist);
    expect(brotliDecompressSync(await readFile(join(dist, "_astro/island.js.br"))).toString()).toBe(script);
    expect(gunzipSync(await readFile(join(dist, "_astro/island.js.gz"))).toString()).toBe(script);
    const html = await readFile(join(dist, "index.html"));
    expect(gunzipSync(await readFile(join(dist, "index.html.gz")))).toEqual(html);
  });

  it("skips binary formats, files without a text extension, and copies that would not be smaller", async () => {
    const written = await precompressDir(dist);
    const all = [...(await readdir(dist)), ...(await readdir(join(dist, "_astro")))];
    expect(all.filter((f) => f.startsWith("og-image.jpg."))).toEqual([]);
    expect(all.filter((f) => f.startsWith("_headers."))).toEqual([]);
    expect(all).not.toContain("tiny.js.gz");
    expect(written).toBe(all.filter((f) => /\.(br|gz)$/.test(f)).length);
  });
});
