/**
 * The proxy configuration of the issue that asked for the proxy, which "must work as written":
 * only the upstream URLs change, to servers the tests start on free ports.
 */
export function issueConfig(weatherUrl: string, echoUrl: string) {
  return {
    agents: {
      weather: { url: weatherUrl, description: "Forecasts", headers: { authorization: "Bearer upstream-secret" } },
      echo: { url: echoUrl, limits: { concurrentRuns: 2 } },
    },
    auth: {
      tokens: [
        { token: "t-alice", subject: "alice", agents: ["weather", "echo"] },
        { token: "t-bob", subject: "bob", agents: ["echo"] },
      ],
      jwt: { secret: "a-32-byte-or-longer-shared-secret!!", issuer: "https://issuer.example", audience: "agui" },
    },
    limits: { maxBodyBytes: 1048576, runsPerMinute: 600, runTimeoutMs: 300000 },
    cors: { origins: ["http://localhost:5173"] },
  };
}
