// Reads a content file the way Astro's file() loader does (js-yaml), for the loaders in
// content.config.ts that expand a file and for the unit tests that check the files.
import { readFile } from "node:fs/promises";
import { load } from "js-yaml";

/** The content folder, from the project root (Astro and Vitest both run there). */
export const CONTENT_DIR = "src/content";

export async function readContentYaml(fileName: string): Promise<unknown> {
  const path = `${CONTENT_DIR}/${fileName}`;
  return load(await readFile(path, "utf8"), { filename: path });
}
