import { buildSync } from "./next.mjs";

buildSync();
