// Preloaded into a gateway (`node --require`) to profile one phase of a load, not the whole process:
// SIGWINCH starts V8's CPU profiler, the next SIGWINCH stops it and writes $CPU_PROFILE_OUT
// (a .cpuprofile that Chrome DevTools and speedscope read). SIGWINCH: the gateway's graceful
// shutdown (close-with-grace) already listens to SIGUSR2.
const { Session } = require("node:inspector");
const { writeFileSync } = require("node:fs");

const session = new Session();
session.connect();
let profiling = false;

process.on("SIGWINCH", () => {
  profiling = !profiling;
  if (profiling) {
    session.post("Profiler.enable", () => session.post("Profiler.start"));
    return;
  }
  session.post("Profiler.stop", (error, result) => {
    if (error) throw error;
    writeFileSync(process.env.CPU_PROFILE_OUT ?? "drain.cpuprofile", JSON.stringify(result.profile));
  });
});
