module tb;
  parameter N = 1<<25;
  parameter ITER = 4000000;
  reg [63:0] mem [0:N-1];
  reg [31:0] lfsr;
  reg [63:0] acc;
  integer i, k, a;
  // With +steps it prints "STEP n" every 65536 steps of its three loops,
  // n counting the steps so far (bench/onerun/stamp.py times them).
  reg steps;
  reg [39:0] n;
  initial begin
    steps = $test$plusargs("steps"); n = 0;
    // phase 1: fill
    for (i = 0; i < N; i = i + 1) begin
      mem[i] = {i, ~i};
      n = n + 1; if (steps && n[15:0] == 0) begin $display("STEP %0d", n); $fflush; end
    end
    // phase 2: skewed random read-modify-write (LFSR, low addresses favoured)
    lfsr = 32'hACE1; acc = 0;
    for (k = 0; k < ITER; k = k + 1) begin
      lfsr = {lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]};
      a = (lfsr[0] ? (lfsr[31:10] & (N/8-1)) : (lfsr[31:8] & (N-1)));
      mem[a] = mem[a] + acc;
      acc = acc ^ mem[a];
      n = n + 1; if (steps && n[15:0] == 0) begin $display("STEP %0d", n); $fflush; end
    end
    // phase 3: sequential sweep
    for (i = 0; i < N; i = i + 1) begin
      acc = acc + mem[i];
      n = n + 1; if (steps && n[15:0] == 0) begin $display("STEP %0d", n); $fflush; end
    end
    $display("acc=%h", acc);
    $finish;
  end
endmodule
