// CPU time of processes and of the machine, as the kernel counts it (/proc), to say which process a
// figure's throughput was bounded by.
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's times (USER_HZ; 100 on Linux everywhere). */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds `pid` has used so far; 0 when it is gone. */
export function processCpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return 0;
  }
  // Fields after the command (which may hold spaces), from field 3 (state) on: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Busy and total CPU seconds of the whole machine so far (all cores, /proc/stat). */
export function machineCpuSeconds(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy / TICKS_PER_SECOND, total: (busy + idle + iowait) / TICKS_PER_SECOND };
}
