// A dialog whose content comes from what it was opened for (a payment, a key, an action) closes when
// that is cleared, and fades out for a moment after. Drawn from the cleared value, it would empty
// while fading ("Refund:" with no invoice, no amounts); drawn from the last one, it stays as it was.
import { useState } from "react";

/** `value` while it is set; after it is cleared, the last value it had. */
export function useLastShown<T>(value: T | null): T | null {
  const [last, setLast] = useState(value);
  // Kept during render, React's way of storing what an earlier render saw.
  if (value !== null && value !== last) setLast(value);
  return value ?? last;
}
