"""The on-device agent: engage memory, prompt with the hardware context, run the model's tool calls, reflect."""
