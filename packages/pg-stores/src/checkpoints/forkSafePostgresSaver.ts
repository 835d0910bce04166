import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";

/**
 * LangGraph's PostgreSQL checkpointer, with channel versions that never repeat on a thread. The
 * saver stores each channel's value once per (thread, channel, version); its versions count 1, 2,
 * 3…, so a run from an earlier checkpoint (a fork) writes versions the abandoned branch already
 * wrote, and reads that branch's values back. A random fraction on each version (as LangGraph's
 * Python savers add one) keeps a fork's versions its own. Versions stay numbers, ordered as before:
 * threads checkpointed with whole numbers go on unchanged.
 */
export class ForkSafePostgresSaver extends PostgresSaver {
  override getNextVersion(current: number | undefined): number {
    const whole = current === undefined ? 0 : Math.floor(current);
    return whole + 1 + Math.random() / 2;
  }
}
