import { describe, expect, it } from "vitest";
import type { Toast } from "../../stores/toast.ts";
import { newToasts } from "./toast-fallback.tsx";

const toast = (id: number, kind: Toast["kind"], message: string): Toast => ({ id, kind, message });

describe("the toasts the fallback adds", () => {
  it("adds each new message in order", () => {
    const fresh = [toast(1, "error", "Login failed"), toast(2, "success", "Copied to clipboard!")];
    expect(newToasts([], fresh)).toEqual(fresh);
  });

  it("leaves out a message that is on the screen, and a repeat within the same batch", () => {
    const shown = [toast(1, "success", "Copied to clipboard!")];
    const fresh = [
      toast(2, "success", "Copied to clipboard!"),
      toast(3, "error", "Login failed"),
      toast(4, "error", "Login failed"),
    ];
    expect(newToasts(shown, fresh)).toEqual([toast(3, "error", "Login failed")]);
  });

  it("tells the same words apart by their kind", () => {
    const shown = [toast(1, "info", "Saved")];
    expect(newToasts(shown, [toast(2, "success", "Saved")])).toEqual([toast(2, "success", "Saved")]);
  });
});
