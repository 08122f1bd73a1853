// Placeholder until the log-import view lands.
export function setupLogs() {}
