import { TEST_TOKEN_ARTIFACT_PATH, loadTestTokenArtifact } from "./loadTestTokenArtifact.js";

// Refreshes src/dev/contracts/TestUSDC.json after TestUSDC.sol changed: `npx tsx src/dev/compileTestToken.ts`.
const artifact = await loadTestTokenArtifact({ log: (line) => console.log(line) });
console.log(`${TEST_TOKEN_ARTIFACT_PATH}: ${artifact.compiler}, source ${artifact.sourceHash.slice(0, 12)}…`);
