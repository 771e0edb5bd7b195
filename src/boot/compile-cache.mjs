// Loaded with `node --import` before src/main.ts (npm start, npm run worker, the image): Node's
// compile cache keeps each module's type-stripped source and V8 code, so a start after the first
// neither strips TypeScript again (nor loads the ~17 MB stripper at all) nor recompiles. It lives in
// NODE_COMPILE_CACHE, else <tmpdir>/node-compile-cache; an entry is used only while its file's
// content is unchanged. NODE_DISABLE_COMPILE_CACHE=1 turns it off. Plain JavaScript, because it has
// to run before the first TypeScript file is read.
import { enableCompileCache } from "node:module";

enableCompileCache();
