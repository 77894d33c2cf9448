/** The run store contract, held by memoryStore. */
import { memoryStore } from "../../src/server/index.js";
import { describeRunStoreContract } from "./contract.js";

describeRunStoreContract("memoryStore", async () => {
  const store = memoryStore();
  return { store, cleanup: () => store.close() };
});
