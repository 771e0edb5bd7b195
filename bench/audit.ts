/**
 * `npm run bench:audit`: the audit suite of bench/audit-suite.ts (append rows/s with the hash chain
 * from 1/4/16 writers, approval decide latency), printed as tables.
 */
import { formatAuditSuite, measureAuditSuite } from "./audit-suite.ts";

console.log(formatAuditSuite(await measureAuditSuite()).join("\n"));
