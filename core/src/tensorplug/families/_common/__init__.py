"""What the families' modules share: converting an op's arguments and binding its dispatcher
(``convert``), axes, and the helpers of gradient, JVP and batching rules."""
