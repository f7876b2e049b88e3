"""What the devices report and what the table tells them: the controller's side of the shoe,
the panels and the console (reports turned into steps, inputs from presses, the shoe's
gate, LED and checks). Pure or clock-injected: no thread, no port."""
