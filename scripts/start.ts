// `npm start`: build the portal if needed, then run the one server process (pages + API).
import { buildIfStale } from "./build-if-stale.ts";

buildIfStale();
await import("../server/main.ts");
