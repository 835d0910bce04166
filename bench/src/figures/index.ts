import type { Figure } from "../figure";
import { b1Queue } from "./b1Queue";
import { b2Outbox } from "./b2Outbox";
import { b3Leases } from "./b3Leases";
import { b4HttpEnqueue } from "./b4HttpEnqueue";
import { b5TimeToFirstChunk } from "./b5TimeToFirstChunk";
import { b6ScaleOut } from "./b6ScaleOut";
import { b7Memory } from "./b7Memory";
import { b8RoomFanOut } from "./b8RoomFanOut";
import { b9NoisyNeighbour } from "./b9NoisyNeighbour";
import { b10StreamRelay } from "./b10StreamRelay";
import { b11LangGraphPeer } from "./b11LangGraphPeer";
import { b12ApiWorkerRoles } from "./b12ApiWorkerRoles";
import { b13CpuFlood } from "./b13CpuFlood";

/** Every figure `pnpm bench` runs, in order. */
export const figures: Figure[] = [b1Queue, b2Outbox, b3Leases, b4HttpEnqueue, b5TimeToFirstChunk, b6ScaleOut, b7Memory, b8RoomFanOut, b9NoisyNeighbour, b10StreamRelay, b11LangGraphPeer, b12ApiWorkerRoles, b13CpuFlood];
