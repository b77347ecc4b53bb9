import { describe, expect, it } from "vitest";
import { DEBIAN_CHROMIUM, type Machine, planChromium } from "./chromium.ts";

const machine = (over: Partial<Machine> & { files?: string[] }): Machine => ({
  chromePath: undefined,
  exists: (path) => (over.files ?? []).includes(path),
  isRoot: true,
  hasAptGet: true,
  ...over,
});

describe("planChromium (npm test before any test starts)", () => {
  it("uses CHROME_PATH when that file exists", () => {
    expect(planChromium(machine({ chromePath: "/opt/chrome", files: ["/opt/chrome"] }))).toEqual({
      kind: "found",
      path: "/opt/chrome",
    });
  });

  it("stops when CHROME_PATH names no file, rather than installing another browser", () => {
    const plan = planChromium(machine({ chromePath: "/opt/chrome" }));
    expect(plan).toMatchObject({ kind: "missing", message: expect.stringContaining("/opt/chrome") });
  });

  it("uses Debian's Chromium when it is installed", () => {
    expect(planChromium(machine({ files: [DEBIAN_CHROMIUM] }))).toEqual({
      kind: "found",
      path: DEBIAN_CHROMIUM,
    });
  });

  it("installs Debian's package as root with apt-get", () => {
    expect(planChromium(machine({}))).toEqual({ kind: "install" });
  });

  it.each([
    ["not root", { isRoot: false }, "sudo sh -c 'apt-get update && apt-get install -y chromium'"],
    ["no apt-get", { isRoot: true, hasAptGet: false }, "set CHROME_PATH"],
  ])("names the command to run when %s", (_name, over, command) => {
    const plan = planChromium(machine(over));
    expect(plan.kind).toBe("missing");
    expect(plan.kind === "missing" && plan.message).toContain(command);
  });
});
