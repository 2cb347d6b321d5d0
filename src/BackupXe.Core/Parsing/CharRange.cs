using System.Buffers;

namespace BackupXe.Core.Parsing;

/// <summary>A contiguous range of characters as <see cref="SearchValues{T}"/>, for scans on hot paths.</summary>
/// <remarks>
/// The generic span methods (<c>IndexOfAnyExceptInRange&lt;T&gt;</c>, <c>ContainsAnyInRange&lt;T&gt;</c>) choose their
/// vectorised path with <c>value is byte or sbyte</c>, <c>is short or ushort or char</c> tests on the generic bounds.
/// The JIT folds those away, but precompiled code may box the bounds for every test, several boxes a line on a hot
/// path. A range <see cref="SearchValues{T}"/> reaches the same vectorised search through a virtual call and boxes nothing.
/// </remarks>
public static class CharRange
{
    /// <summary>Every character from <paramref name="first"/> to <paramref name="last"/>, both included.</summary>
    public static SearchValues<char> Of(char first, char last)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(first, last);
        var all = new char[last - first + 1];
        for (var i = 0; i < all.Length; i++)
        {
            all[i] = (char)(first + i);
        }

        return SearchValues.Create(all);
    }
}
