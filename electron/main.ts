// Electron entry point (bundled to dist/electron/main.js by `npm run build`).
import { dataDirOf } from '../server/config/data-dir-default.ts';
import { startDesktop } from './desktop.ts';
import { emergencyStopper, estopMenuItem } from './estop.ts';

// The Machine menu's e-stop finds the machine process through the data dir's machine.json when
// pressed (the same data dir loadConfig picks), never through the core.
void startDesktop({ machineMenu: [estopMenuItem(emergencyStopper(dataDirOf(process.env)))] });
