/**
 * node-postgres, loaded without its Cloudflare probe's cost (pg-probe.ts): the store's one import
 * of pg's values. The side-effect import is evaluated first, so the probe finds its `navigator`.
 */
import "./pg-probe.js";
import pg from "pg";
import { restoreNavigator } from "./pg-probe.js";

restoreNavigator();

export default pg;
