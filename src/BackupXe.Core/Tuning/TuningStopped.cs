namespace BackupXe.Core.Tuning;

/// <summary>Why a search ends before it is done: a safety refusal, or no room or rate left to measure with.</summary>
internal sealed class TuningStopped(string message, bool refused) : Exception(message)
{
    /// <summary>Stopped for safety (a check failed, a trial failed), not for budget: the report says it was refused.</summary>
    public bool Refused { get; } = refused;
}
