// How a state file is named (`*.state.yaml`), so a folder can hold state files beside runbooks
// and whoever lists the folder's runbooks or state files tells them apart. No imports: the CLI
// reads it at start-up.

export const STATE_FILE_NAME = /\.state\.ya?ml$/;
