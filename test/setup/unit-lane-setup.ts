import { installUnitLaneGuard } from "./unit-lane-guard.ts";

/** Setup file of the unit lane's projects: the guard, once per fork (a reused fork runs this per file). */
const INSTALLED = Symbol.for("hermes.unitLaneGuard");
const holder = globalThis as { [INSTALLED]?: true };
if (!holder[INSTALLED]) {
  installUnitLaneGuard();
  holder[INSTALLED] = true;
}
