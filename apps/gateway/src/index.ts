export { ConfigError, loadConfig, parseRetentionHours, type GatewayConfig } from "./config";
export { buildGateway, type BuildGatewayOptions } from "./server";
export { gatewayContextOf, type GatewayContext } from "./context/gatewayContext";
export { BODY_LIMIT_BYTES } from "./defaults";
export { HttpError } from "./http/errors";
export type { ReadinessCheck } from "./stores/gatewayStores";
export type { ScheduleRoutesOptions } from "./routes/schedules";
export { AGENT_MESSAGE_TASK_TYPE, type EnqueueAgentMessage, type ScheduledAgentMessage } from "./schedules/agentMessageHandler";
export { start, type RunningGateway } from "./start";
export { issueToken, type TokenRequest } from "./auth/tokenIssuer";
export type { Principal, Scope } from "./auth/principal";
export {
  ProjectRoomEventBroker,
  type ForeignEventOutcome,
  type ProjectRoomEventBrokerOptions,
  type RoomBroadcastHook,
  type RoomEventDelivery,
  type RoomEventListener,
  type RoomSubscription,
  type RoomSubscriptionEndReason,
} from "./rooms/projectRoomEventBroker";
export type { ProjectRoomEvent, ProjectRoomEventDraft } from "./rooms/roomEvent";
export { followRoom, type RoomFollower, type RoomResumePoint, type RoomStreamEndReason, type RoomStreamSink } from "./rooms/followRoom";
export { ingestRoomEvent, publishRoomEvent } from "./rooms/roomEventSync";
export type { RoomEventEnvelope } from "@axiom-lattice/protocols";
