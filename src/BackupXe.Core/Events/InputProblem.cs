namespace BackupXe.Core.Events;

/// <summary>Something wrong with an input, said where it happened (byte offset or line) and what it was.</summary>
/// <param name="Location">"offset 4096", "line 12", "element 3 (line 40, position 5)" and the like.</param>
public sealed record InputProblem(string Location, string Message);
