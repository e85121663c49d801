export type { FaultSpec } from "./faults.js";
export type { PullSeed, Seeder, ThreadSeed } from "./seed.js";
export { type FakeGithub, type RecordedRequest, type StartOptions, startFakeGithub } from "./server.js";
export type { FakeIssue, FakePermission, FakePull, FakeThread } from "./state.js";
