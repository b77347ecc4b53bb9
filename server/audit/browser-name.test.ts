import { describe, expect, it } from "vitest";
import { browserName } from "./browser-name.ts";

describe("browserName", () => {
  it("names the browser, its major version and the system", () => {
    expect(
      browserName(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      ),
    ).toBe("Chrome 131 on Windows");
    expect(
      browserName(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Mobile Safari 18 on iOS");
    expect(browserName("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe(
      "Firefox 133 on Linux",
    );
  });

  it("answers null for no User-Agent or one that names no browser", () => {
    expect(browserName(null)).toBeNull();
    expect(browserName("")).toBeNull();
    expect(browserName("curl/8.5.0")).toBeNull();
    expect(browserName("x")).toBeNull();
  });
});
