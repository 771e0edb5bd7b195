// Runs before `npm start`, `npm run worker` and the test scripts, on whatever `node` npm found first
// (plain JavaScript, so an old Node can run it): one sentence instead of a syntax error deep in the
// TypeScript sources when that Node cannot strip types.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `Hermes needs Node.js 24 LTS (22.18+ works) to run its TypeScript, and this is ${process.version}: ` +
      "on Linux x64 and arm64 npm ci installs it into node_modules unless optional dependencies are " +
      "omitted; elsewhere install it from https://nodejs.org (nvm install reads .nvmrc).",
  );
  process.exit(1);
}
