/**
 * Where the numbers were measured: the machine, the runtime and the exact package versions.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";

export interface MachineInfo {
  os: string;
  cpu: string;
  cores: number;
  memoryGB: number;
  node: string;
  v8: string;
}

/** Ours, then the peers and the tools that shape the numbers. */
const PACKAGES = ["@ag-ui/client", "@ag-ui/core", "@ag-ui/encoder", "@ag-ui/proto", "@bufbuild/protobuf", "protobufjs", "rxjs", "zod", "tinybench"];

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    v8: process.versions.v8,
  };
}

/** Installed versions, read from each package's own package.json. */
export function packageVersions(): Record<string, string> {
  const root = new URL("../", import.meta.url);
  const require = createRequire(new URL("package.json", root));
  const own = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { name: string; version: string };
  const versions: Record<string, string> = { [own.name]: own.version };
  for (const name of PACKAGES) {
    try {
      versions[name] = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      // Packages whose exports hide package.json: find it next to the entry point.
      try {
        let dir = require.resolve(name);
        while (!dir.endsWith(`node_modules/${name}`)) dir = dir.slice(0, dir.lastIndexOf("/"));
        versions[name] = (JSON.parse(readFileSync(`${dir}/package.json`, "utf8")) as { version: string }).version;
      } catch {
        versions[name] = "not installed";
      }
    }
  }
  return versions;
}

/** One line each: machine, then packages. */
export function describeEnvironment(m: MachineInfo, versions: Record<string, string>): string {
  return [
    `machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGB} GB, ${m.os}`,
    `runtime: Node ${m.node} (V8 ${m.v8})`,
    `packages: ${Object.entries(versions)
      .map(([n, v]) => `${n} ${v}`)
      .join(", ")}`,
  ].join("\n");
}
