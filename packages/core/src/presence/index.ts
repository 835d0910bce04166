export { InMemoryReplicaPresenceStore } from "./inMemoryReplicaPresenceStore";
export { validateAnnouncement } from "./presenceArguments";
export { startPresenceHeartbeat, type PresenceHeartbeat, type PresenceHeartbeatOptions } from "./presenceHeartbeat";
