import { contractArtifactPath, DEV_CONTRACTS, loadContractArtifact } from "./loadContractArtifact.js";

// Refreshes src/dev/contracts/*.json after a .sol changed: `npx tsx src/dev/compileContracts.ts`.
for (const contract of DEV_CONTRACTS) {
  const artifact = await loadContractArtifact({ contract, log: (line) => console.log(line) });
  console.log(
    `${contractArtifactPath(contract)}: ${artifact.compiler}, source ${artifact.sourceHash.slice(0, 12)}…`,
  );
}
